# TCP, brief output, 1 s interval reports
# captured: 2026-11-24T17:32:44Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: nuttcp-6.1.2 (nuttcp -V)
# output: stdout+stderr combined (> tcp_T3_i1.out 2>&1), stdout a file, not a TTY
# server (started before, on 127.0.0.1, killed by PID after): nuttcp -S --nofork -P 15700
timeout 30 nuttcp -T 3 -i 1 -P 15700 -p 15701 127.0.0.1 > tcp_T3_i1.out 2>&1
