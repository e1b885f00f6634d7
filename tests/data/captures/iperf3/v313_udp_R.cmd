# iperf3 3.1.3 UDP -R 20M, default text (client output)
# captured: 2026-11-24T17:37:10Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.1.3 (/tmp/iperfbuild/3.1.3/inst/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /tmp/iperfbuild/3.1.3/inst/bin/iperf3 -s -1 -p 36323 > /tmp/iperfcap/v313_udp_R.server.txt 2>&1 &
timeout 20 /tmp/iperfbuild/3.1.3/inst/bin/iperf3 -c 127.0.0.1 -p 36323 -t 3 -u -R -b 20M > tests/data/captures/iperf3/v313_udp_R.out 2>&1
