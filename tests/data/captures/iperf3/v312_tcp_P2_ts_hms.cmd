# iperf3 3.12 TCP -P 2, --timestamps='%H:%M:%S ' (client output)
# captured: 2026-11-24T17:34:04Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.12 (cJSON 1.7.15) (/usr/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /usr/bin/iperf3 -s -1 -p 59973 > /tmp/iperfcap/v312_tcp_P2_ts_hms.server.txt 2>&1 &
timeout 20 /usr/bin/iperf3 -c 127.0.0.1 -p 59973 -t 3 -P 2 --timestamps='%H:%M:%S ' > tests/data/captures/iperf3/v312_tcp_P2_ts_hms.out 2>&1
