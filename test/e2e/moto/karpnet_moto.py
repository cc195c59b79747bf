#!/usr/bin/env python3
"""karpnet_moto: moto 5.2.1 with the EC2 networking karpnet needs, for end-to-end tests.

Usage
    python3 test/e2e/moto/karpnet_moto.py --host 127.0.0.1 --port PORT [--ready-file FILE]

    --port 0 picks a free port. Once the server answers, its base URL
    (http://127.0.0.1:PORT) is printed and, with --ready-file, written to FILE (atomically),
    which is how the Go harness (test/e2e/harness/moto.go) learns it. SIGTERM or SIGINT stops
    the server.

Requirements
    Python 3.11 or newer with moto 5.2.1 and its server extras (`pip install
    'moto[server]==5.2.1'`); nothing else. The launcher refuses any other moto version,
    because its patches replace moto internals that change between releases.

What is patched (each module's docstring says what moto lacked and what changed)
    karpnet_moto_addresses   subnet addresses: every address and /28 prefix comes from the
                             subnet, and AvailableIpAddressCount falls by 1 per address and
                             16 per prefix.
    karpnet_moto_interfaces  CreateNetworkInterface / AttachNetworkInterface: InterfaceType
                             (efa, efa-only without addresses, trunk), Ipv4PrefixCount,
                             SecondaryPrivateIpAddressCount, NetworkCardIndex.
    karpnet_moto_instances   RunInstances NetworkInterface.N (the same fields, interfaces on
                             several network cards) and Placement.GroupName / GroupId /
                             PartitionNumber; DescribeInstances shows interfaceType,
                             networkCardIndex, ipv4PrefixSet and the placement group.
    karpnet_moto_placement   CreatePlacementGroup, DescribePlacementGroups (GroupName.N,
                             GroupId.N, filters), DeletePlacementGroup.
    karpnet_moto_ipv6        DescribeSubnets ipv6CidrBlockState; AssignIpv6Addresses
                             Ipv6PrefixCount (/80 prefixes, shown as ipv6PrefixSet).
    karpnet_moto_gateways    CreateNatGateway, CreateVpcEndpoint (Interface): interface
                             addresses come from the subnet.

Endpoints besides moto's own (POST /moto-api/reset forgets every resource)
    /_karpnet/faults and /_karpnet/requests inject EC2 errors and count requests per
    action; see karpnet_moto_control.
"""

import argparse
import os
import signal
import sys
import threading

# The patch modules sit beside this file; never write bytecode into the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

REQUIRED_MOTO = "5.2.1"


def check_moto():
    """Exits with a clear message unless moto REQUIRED_MOTO is importable."""
    if sys.version_info < (3, 11):
        sys.exit(f"karpnet-moto: Python 3.11 or newer is required, this is {sys.version.split()[0]} "
                 f"({sys.executable}): put a newer python3 first in PATH")
    try:
        import moto
    except ImportError as err:
        sys.exit(f"karpnet-moto: moto is not installed for {sys.executable} ({err}): "
                 f"install it with `python3 -m pip install 'moto[server]=={REQUIRED_MOTO}'`")
    if moto.__version__ != REQUIRED_MOTO:
        sys.exit(f"karpnet-moto: moto {REQUIRED_MOTO} is required, found moto {moto.__version__} "
                 f"at {os.path.dirname(moto.__file__)}: install it with "
                 f"`python3 -m pip install 'moto[server]=={REQUIRED_MOTO}'`")


def patch_moto():
    """Applies every patch, in dependency order."""
    import karpnet_moto_addresses
    import karpnet_moto_interfaces
    import karpnet_moto_instances
    import karpnet_moto_ipv6
    import karpnet_moto_gateways
    import karpnet_moto_placement

    karpnet_moto_addresses.apply()
    karpnet_moto_interfaces.apply()
    karpnet_moto_gateways.apply()
    karpnet_moto_ipv6.apply()
    karpnet_moto_placement.apply()
    karpnet_moto_instances.apply()


def serve(host, port, ready_file):
    """Serves moto behind the control middleware until SIGTERM or SIGINT."""
    from werkzeug.serving import make_server
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    import karpnet_moto_control

    app = karpnet_moto_control.Control(DomainDispatcherApplication(create_backend_app))
    server = make_server(host, port, app, threaded=True)
    url = f"http://{host}:{server.server_port}"

    def stop(signum, frame):
        # shutdown() waits for serve_forever, so it cannot run on the serving thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if ready_file:
        tmp = ready_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(url + "\n")
        os.replace(tmp, ready_file)
    print(f"karpnet-moto: moto {REQUIRED_MOTO} listening on {url}", flush=True)
    server.serve_forever()
    print("karpnet-moto: stopped", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks one")
    parser.add_argument("--ready-file", help="file to write the base URL to once listening")
    args = parser.parse_args(argv)
    check_moto()
    patch_moto()
    serve(args.host, args.port, args.ready_file)


if __name__ == "__main__":
    main()
