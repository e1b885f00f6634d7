# iperf3 3.21 TCP -R, the server's --logfile with --timestamps (server output; its client's output is v321_tcp_R_server_logfile_client.out)
# note: .cmd written after the capture, with the commands recorded in v321_tcp_R_server_logfile_client.cmd (this file is the server's --logfile)
# note: the server's own stdout and stderr (to /tmp) were empty: its output went to the log file
# captured: 2026-11-24T17:35:31Z (UTC), on loopback 127.0.0.1
# exit status: client 0, server 0
# tool: iperf 3.21 (cJSON 1.7.15) (/root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3)
# commands (server first, in the background; the client 0.7 s later):
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -s -1 -p 46505 --logfile tests/data/captures/iperf3/v321_tcp_R_server_logfile_ts.out --timestamps > /tmp/iperfcap/v321_tcp_R_server_logfile_client.server.txt 2>&1 &
timeout 20 /root/.cache/pairbench/tools/iperf3-16d415ead246b6bc/bin/iperf3 -c 127.0.0.1 -p 46505 -t 3 -R > tests/data/captures/iperf3/v321_tcp_R_server_logfile_client.out 2>&1
