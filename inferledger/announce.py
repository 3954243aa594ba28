"""Print "Serving InferLedger on URL" once the server at URL answers (make run), not before.

Run as a script (``python inferledger/announce.py URL``), standard library only, so it starts at once
beside the server without importing Django. Any HTTP answer counts (a redirect to the login page, a 404):
it means the server accepts requests. Gives up, saying so, after --timeout seconds.
"""

import argparse
import sys
import time
import urllib.error
import urllib.request


def answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2).close()  # noqa: S310 (our own local URL)
    except urllib.error.HTTPError:
        return True  # an HTTP status is an answer
    except (urllib.error.URLError, OSError):
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if answers(args.url):
            print(f"Serving InferLedger on {args.url}  (API: /api/v1/, docs: /api/docs/, admin: /admin/)", flush=True)
            return 0
        time.sleep(0.5)
    print(f"InferLedger did not answer on {args.url} within {args.timeout:.0f} s: see the server's output above.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
