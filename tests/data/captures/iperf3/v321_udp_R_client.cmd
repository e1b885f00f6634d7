# iperf3 3.21 UDP -R 20M, the client's output (its server's is v321_udp_R_server.out) (client output)
# captured: 2026-11-24T17:47:20Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 57467 > tests/data/captures/iperf3/v321_udp_R_server.out 2>&1 &
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 127.0.0.1 -p 57467 -t 3 -u -R -b 20M > tests/data/captures/iperf3/v321_udp_R_client.out 2>&1
