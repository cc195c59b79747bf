"""The test control endpoint: injected EC2 errors and request counts.

Control is WSGI middleware in front of moto. It reads the action of every AWS request (the
Action form field of query-protocol services such as EC2, or the X-Amz-Target operation),
counts it, and answers with an injected error instead of passing it to moto when a fault is
set for that action.

    POST   /_karpnet/faults    {"action": "DescribeSubnets", "code": "UnauthorizedOperation",
                                "status": 403, "count": -1, "message": "optional"}
                               count N > 0 fails the next N calls, -1 fails every call and 0
                               clears the fault; action "*" matches every action; status
                               defaults to EC2's status for the code.
    GET    /_karpnet/faults    the faults set, as JSON.
    DELETE /_karpnet/faults    clears every fault.
    GET    /_karpnet/requests  {"DescribeSubnets": 3, ...}: requests seen per action,
                               failed ones included.
    DELETE /_karpnet/requests  sets every count back to zero (callers and in-flight too).
    GET    /_karpnet/callers   {"AKID...": {"DescribeSubnets": 2, ...}}: requests per access
                               key ID of their SigV4 credential, then per action.
    GET    /_karpnet/inflight  {"max": N}: the most AWS requests moto was answering at once.

An injected error is EC2's error document:
<Response><Errors><Error><Code>..</Code><Message>..</Message></Error></Errors>
<RequestID>..</RequestID></Response>
"""

import io
import json
import re
import threading
import uuid
from collections import Counter
from http import HTTPStatus
from urllib.parse import parse_qs
from xml.sax.saxutils import escape

PREFIX = "/_karpnet/"

# STATUS is the HTTP status EC2 answers with for an error code; 400 for the rest.
STATUS = {
    "UnauthorizedOperation": 403,
    "AccessDenied": 403,
    "AuthFailure": 401,
    "RequestExpired": 401,
    "RequestLimitExceeded": 503,
    "Unavailable": 503,
    "ServiceUnavailable": 503,
    "InternalError": 500,
}

# MESSAGES are EC2's messages for the codes tests inject most.
MESSAGES = {
    "UnauthorizedOperation": "You are not authorized to perform this operation.",
    "RequestLimitExceeded": "Request limit exceeded.",
    "AuthFailure": "AWS was not able to validate the provided access credentials",
    "InternalError": "An internal error has occurred",
}


class Control:
    """WSGI middleware adding the /_karpnet/ endpoints and fault injection to app."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.faults = {}  # action -> {"code", "status", "message", "count"}
        self.requests = Counter()
        self.callers = {}  # access key ID -> Counter of actions
        self.inflight = 0
        self.max_inflight = 0

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.startswith(PREFIX):
            return self.control(environ, start_response, path[len(PREFIX):].strip("/"))
        action = request_action(environ)
        if not action:
            return self.app(environ, start_response)
        fault = self.take(action, access_key(environ))
        with self.lock:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            if fault is not None:
                return error_response(start_response, fault)
            # moto builds the whole answer here, so the request is in flight until it returns.
            return self.app(environ, start_response)
        finally:
            with self.lock:
                self.inflight -= 1

    def take(self, action, key=None):
        """Counts a request and returns the fault it gets, if any."""
        with self.lock:
            self.requests[action] += 1
            if key:
                self.callers.setdefault(key, Counter())[action] += 1
            fault = self.faults.get(action) or self.faults.get("*")
            if fault is None:
                return None
            if fault["count"] > 0:
                fault["count"] -= 1
                if fault["count"] == 0:
                    self.faults = {k: v for k, v in self.faults.items() if v is not fault}
            return dict(fault)

    def control(self, environ, start_response, name):
        method = environ.get("REQUEST_METHOD", "GET")
        with self.lock:
            if name == "requests" and method == "GET":
                return json_response(start_response, 200, dict(sorted(self.requests.items())))
            if name == "requests" and method == "DELETE":
                self.requests.clear()
                self.callers = {}
                self.max_inflight = 0
                return json_response(start_response, 200, {})
            if name == "callers" and method == "GET":
                return json_response(start_response, 200,
                                     {k: dict(sorted(v.items())) for k, v in sorted(self.callers.items())})
            if name == "inflight" and method == "GET":
                return json_response(start_response, 200, {"max": self.max_inflight})
            if name == "faults" and method == "GET":
                return json_response(start_response, 200, self.faults)
            if name == "faults" and method == "DELETE":
                self.faults = {}
                return json_response(start_response, 200, {})
        if name == "faults" and method == "POST":
            try:
                action, fault = parse_fault(read_body(environ))
            except ValueError as err:
                return json_response(start_response, 400, {"error": str(err)})
            with self.lock:
                if fault["count"] == 0:
                    self.faults.pop(action, None)
                else:
                    self.faults[action] = fault
                return json_response(start_response, 200, self.faults)
        return json_response(start_response, 404, {"error": f"no {method} /_karpnet/{name}"})


def parse_fault(body):
    """Reads a POST /_karpnet/faults body into (action, fault); ValueError if invalid."""
    try:
        spec = json.loads(body or b"{}")
    except json.JSONDecodeError as err:
        raise ValueError(f"body is not JSON: {err}") from None
    if not isinstance(spec, dict):
        raise ValueError("body must be a JSON object")
    action, code = spec.get("action"), spec.get("code")
    if not isinstance(action, str) or not action:
        raise ValueError('"action" must be an action name such as "DescribeSubnets", or "*"')
    count = spec.get("count", -1)
    if not isinstance(count, int) or count < -1:
        raise ValueError('"count" must be -1 (always), 0 (clear) or the number of calls to fail')
    if count != 0 and (not isinstance(code, str) or not code):
        raise ValueError('"code" must be an EC2 error code such as "UnauthorizedOperation"')
    status = spec.get("status") or STATUS.get(code, 400)
    if status not in {s.value for s in HTTPStatus if s.value >= 400}:
        raise ValueError('"status" must be an HTTP error status such as 400, 403 or 503')
    message = spec.get("message") or MESSAGES.get(code, f"{code} (injected by the test)")
    return action, {"code": code, "status": status, "message": message, "count": count}


CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")


def access_key(environ):
    """Returns the access key ID of a SigV4-signed request, or None."""
    m = CREDENTIAL.search(environ.get("HTTP_AUTHORIZATION", ""))
    return m.group(1) if m else None


def request_action(environ):
    """Returns the AWS action of a request, keeping its body readable for moto."""
    target = environ.get("HTTP_X_AMZ_TARGET")
    if target:
        return target.rsplit(".", 1)[-1]
    query = parse_qs(environ.get("QUERY_STRING", ""))
    if "Action" in query:
        return query["Action"][0]
    if "x-www-form-urlencoded" not in environ.get("CONTENT_TYPE", ""):
        return None
    body = read_body(environ)
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    form = parse_qs(body.decode("utf-8", "replace"))
    return form.get("Action", [None])[0]


def read_body(environ):
    length = environ.get("CONTENT_LENGTH")
    stream = environ["wsgi.input"]
    if length:
        return stream.read(int(length))
    if environ.get("wsgi.input_terminated"):
        return stream.read()
    return b""


def error_response(start_response, fault):
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Response><Errors><Error><Code>{escape(fault['code'])}</Code>"
        f"<Message>{escape(fault['message'])}</Message></Error></Errors>"
        f"<RequestID>{uuid.uuid4()}</RequestID></Response>"
    ).encode()
    start_response(
        f"{fault['status']} {HTTPStatus(fault['status']).phrase}",
        [("Content-Type", "text/xml;charset=UTF-8"), ("Content-Length", str(len(body)))],
    )
    return [body]


def json_response(start_response, status, value):
    body = json.dumps(value, sort_keys=True).encode()
    start_response(
        f"{status} {HTTPStatus(status).phrase}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]
