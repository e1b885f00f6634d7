# iperf3 3.9 TCP, default text (server output)
# captured: 2026-11-24T17:36:43Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.9 (cJSON 1.7.13) (/tmp/iperfbuild/3.9/inst/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /tmp/iperfbuild/3.9/inst/bin/iperf3 -s -1 -p 58519 > tests/data/captures/iperf3/v39_tcp_server.out 2>&1 &
timeout 20 /tmp/iperfbuild/3.9/inst/bin/iperf3 -c 127.0.0.1 -p 58519 -t 3 > tests/data/captures/iperf3/v39_tcp.out 2>&1
