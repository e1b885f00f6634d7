# iperf3 3.9 UDP 20M --bidir, default text (client output)
# captured: 2026-11-24T17:37:25Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.9 (cJSON 1.7.13) (/tmp/iperfbuild/3.9/inst/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /tmp/iperfbuild/3.9/inst/bin/iperf3 -s -1 -p 53951 > /tmp/iperfcap/v39_udp_bidir.server.txt 2>&1 &
timeout 20 /tmp/iperfbuild/3.9/inst/bin/iperf3 -c 127.0.0.1 -p 53951 -t 3 -u -b 20M --bidir > tests/data/captures/iperf3/v39_udp_bidir.out 2>&1
