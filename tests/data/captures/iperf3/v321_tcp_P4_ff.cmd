# iperf3 3.21 TCP -P 4, --forceflush (client output): the window's 4-stream run tab (layout checks)
# captured: 2026-11-28T06:56:45Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 52271 > /tmp/q-cap/srv.txt 2>&1 &
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 127.0.0.1 -p 52271 -t 3 -P 4 --forceflush > tests/data/captures/iperf3/v321_tcp_P4_ff.out 2>&1
