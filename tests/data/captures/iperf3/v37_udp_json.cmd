# iperf3 3.7 UDP 20M, -J (client output)
# captured: 2026-11-24T17:37:21Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.7 (cJSON 1.5.2) (/tmp/iperfbuild/3.7/inst/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /tmp/iperfbuild/3.7/inst/bin/iperf3 -s -1 -p 49359 > /tmp/iperfcap/v37_udp_json.server.txt 2>&1 &
timeout 20 /tmp/iperfbuild/3.7/inst/bin/iperf3 -c 127.0.0.1 -p 49359 -t 3 -u -b 20M -J > tests/data/captures/iperf3/v37_udp_json.out 2>&1
