# SPDX-License-Identifier: GPL-2.0
"""A headless Chromium driven over its DevTools pipe (standard library
only): open a page, evaluate JavaScript, click with the mouse."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--window-size=1600,1000",
         "--remote-debugging-pipe"]


def find_chromium() -> Optional[str]:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process and one page.  Messages on the pipe are
    JSON objects ended by a NUL byte; Chromium reads fd 3, writes fd 4."""

    def __init__(self, exe: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="ftd-chromium-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        fds = {3: to_child_r, 4: from_child_w}

        def setup() -> None:
            # the pipe ends to fds 3 and 4, whatever numbers they had
            tmp = {t: os.dup(fd) for t, fd in fds.items()}
            for t, fd in tmp.items():
                os.dup2(fd, t)      # dup2 leaves the copy inheritable
                os.close(fd)
        self.proc = subprocess.Popen(
            [exe] + FLAGS + ["--user-data-dir=" + self.profile,
                             "about:blank"],
            close_fds=False, preexec_fn=setup,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.session: Optional[str] = None

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except (OSError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_child)
        os.close(self.from_child)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self) -> Dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise RuntimeError("no answer from chromium")
            chunk = os.read(self.from_child, 65536)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        out: Dict[str, Any] = json.loads(msg)
        return out

    def send(self, method: str, session: bool = True,
             **params: Any) -> Dict[str, Any]:
        self.next_id += 1
        msg: Dict[str, Any] = {"id": self.next_id, "method": method,
                               "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        while True:
            ans = self._read()
            if ans.get("id") == self.next_id:
                if "error" in ans:
                    raise RuntimeError("%s: %s" % (method, ans["error"]))
                result: Dict[str, Any] = ans.get("result", {})
                return result

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", session=False, url=url)
        att = self.send("Target.attachToTarget", session=False,
                        targetId=target["targetId"], flatten=True)
        self.session = att["sessionId"]
        deadline = time.monotonic() + self.timeout
        # a new target shows about:blank (complete) before the URL
        while self.eval("location.href === %s && document.readyState"
                        % json.dumps(url)) != "complete":
            if time.monotonic() > deadline:
                raise RuntimeError("page did not load: " + url)
            time.sleep(0.05)

    def eval(self, expr: str) -> Any:
        res = self.send("Runtime.evaluate", expression=expr,
                        returnByValue=True)
        if "exceptionDetails" in res:
            raise RuntimeError("%s: %s" % (expr, res["exceptionDetails"]))
        return res["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A real left click at page coordinates."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y,
                      button="left", clickCount=1)

    def key(self, key: str) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key,
                      code=key)


def frames_state(b: Browser) -> List[int]:
    """[frames shown, frames hidden] of the SVG in the page."""
    res: List[int] = b.eval(
        "(function(){var f=document.querySelectorAll('g.f'),s=0,h=0;"
        "f.forEach(function(g){if(g.style.display==='none')h++;else s++;});"
        "return [s,h];})()")
    return res
