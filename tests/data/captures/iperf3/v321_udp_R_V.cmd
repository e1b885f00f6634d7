# iperf3 3.21 UDP -R 20M, -V (verbose) (client output)
# captured: 2026-11-24T17:35:38Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 43317 > /tmp/iperfcap/v321_udp_R_V.server.txt 2>&1 &
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 127.0.0.1 -p 43317 -t 3 -u -R -b 20M -V > tests/data/captures/iperf3/v321_udp_R_V.out 2>&1
