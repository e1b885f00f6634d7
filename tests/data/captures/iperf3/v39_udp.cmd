# iperf3 3.9 UDP 20M, default text (client output)
# captured: 2026-11-24T17:36:47Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.9 (cJSON 1.7.13) (/tmp/iperfbuild/3.9/inst/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /tmp/iperfbuild/3.9/inst/bin/iperf3 -s -1 -p 57171 > tests/data/captures/iperf3/v39_udp_server.out 2>&1 &
timeout 20 /tmp/iperfbuild/3.9/inst/bin/iperf3 -c 127.0.0.1 -p 57171 -t 3 -u -b 20M > tests/data/captures/iperf3/v39_udp.out 2>&1
