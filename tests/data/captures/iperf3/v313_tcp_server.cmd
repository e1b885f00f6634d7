# iperf3 3.1.3 TCP, default text (server output)
# captured: 2026-11-24T17:36:12Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.1.3 (/tmp/iperfbuild/3.1.3/inst/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /tmp/iperfbuild/3.1.3/inst/bin/iperf3 -s -1 -p 57793 > tests/data/captures/iperf3/v313_tcp_server.out 2>&1 &
timeout 20 /tmp/iperfbuild/3.1.3/inst/bin/iperf3 -c 127.0.0.1 -p 57793 -t 3 > tests/data/captures/iperf3/v313_tcp.out 2>&1
