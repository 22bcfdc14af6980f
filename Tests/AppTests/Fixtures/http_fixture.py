#!/usr/bin/env python3
"""A loopback HTTP server for hlstui's CLI tests: serves a directory, plus faults on demand.

Prints its port on the first line of stdout. Paths:
  /status/NNN       answers with that status
  /slow/SECONDS/... waits, then serves the rest of the path
  /truncated        promises 1000 bytes, sends 20, closes
  /redirect/...     302 to the rest of the path
"""
import http.server
import os
import socketserver
import sys
import time

root = sys.argv[1]


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=root, **kw)

    def log_message(self, *a):
        pass

    def do_GET(self):
        parts = self.path.split("?")[0].split("/")
        if len(parts) > 2 and parts[1] == "status":
            code = int(parts[2])
            body = f"status {code}\n".encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if len(parts) > 3 and parts[1] == "slow":
            time.sleep(float(parts[2]))
            self.path = "/" + "/".join(parts[3:])
        if len(parts) > 1 and parts[1] == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"#EXTM3U\n#EXT-X-TARG")
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        if len(parts) > 2 and parts[1] == "redirect":
            self.send_response(302)
            self.send_header("Location", "/" + "/".join(parts[2:]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


with Server(("127.0.0.1", 0), Handler) as httpd:
    print(httpd.server_address[1], flush=True)
    # Stop by itself after a while so a crashed test never leaves it running.
    httpd.timeout = 1
    deadline = time.time() + float(os.environ.get("FIXTURE_LIFETIME", "300"))
    while time.time() < deadline:
        httpd.handle_request()
