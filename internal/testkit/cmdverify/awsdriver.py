# Runs AWS CLI v1 commands through awscli's own driver, for karpnet's command verifier
# (internal/testkit/cmdverify): one JSON array of arguments (without "aws") a line on stdin, one JSON
# object a line on stdout: the exit code, what the CLI wrote to stdout and stderr, and each
# operation botocore called after validating its parameters, with its protocol, HTTP method
# and request URI.
import io
import json
import sys

from awscli.clidriver import create_clidriver


def main():
    out = sys.stdout
    for line in sys.stdin:
        argv = json.loads(line)
        calls = []

        def record(model, **kwargs):
            calls.append({"op": model.name, "method": model.http.get("method", ""),
                          "uri": model.http.get("requestUri", ""),
                          "protocol": model.metadata.get("protocol", "")})

        driver = create_clidriver()
        driver.session.register("before-call", record)
        err, so = io.StringIO(), io.StringIO()
        sys.stderr, sys.stdout = err, so
        try:
            rc = driver.main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 255
        except BaseException as e:  # the verifier reports it as the command's failure
            err.write("driver: %r\n" % (e,))
            rc = 255
        finally:
            sys.stderr, sys.stdout = sys.__stderr__, out
        out.write(json.dumps({"rc": rc, "stdout": so.getvalue(), "stderr": err.getvalue(), "calls": calls}) + "\n")
        out.flush()


main()
