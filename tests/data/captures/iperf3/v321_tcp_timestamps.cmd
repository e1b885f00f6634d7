# iperf3 3.21 TCP, --timestamps (default format '%c ') (client output)
# captured: 2026-11-24T17:35:01Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 33601 --timestamps > tests/data/captures/iperf3/v321_tcp_timestamps_server.out 2>&1 &
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 127.0.0.1 -p 33601 -t 3 --timestamps > tests/data/captures/iperf3/v321_tcp_timestamps.out 2>&1
