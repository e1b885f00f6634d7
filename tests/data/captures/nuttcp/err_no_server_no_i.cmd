# TCP client without -i, no server listening: connection refused
# captured: 2026-11-24T17:35:46Z (UTC) on the dev machine, loopback only
# exit status: 1
# tool version: nuttcp-6.1.2 (nuttcp -V)
# output: stdout+stderr combined (> err_no_server_no_i.out 2>&1), stdout a file, not a TTY
# no server listening on 127.0.0.1:15700
timeout 30 nuttcp -T 3 -P 15700 -p 15701 127.0.0.1 > err_no_server_no_i.out 2>&1
