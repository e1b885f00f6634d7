# iperf3 3.12 UDP 20M, --timestamps='%s ' (epoch digits before each line) (server output)
# captured: 2026-11-24T17:34:08Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.12 (cJSON 1.7.15) (/usr/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /usr/bin/iperf3 -s -1 -p 41395 --timestamps='%s ' > tests/data/captures/iperf3/v312_udp_ts_epoch_server.out 2>&1 &
timeout 20 /usr/bin/iperf3 -c 127.0.0.1 -p 41395 -t 3 -u -b 20M --timestamps='%s ' > tests/data/captures/iperf3/v312_udp_ts_epoch.out 2>&1
