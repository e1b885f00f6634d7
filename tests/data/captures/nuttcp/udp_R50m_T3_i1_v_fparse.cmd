# UDP 50 Mbit/s, verbose (-v) with -fparse, 1 s intervals
# captured: 2026-11-24T17:35:00Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: nuttcp-6.1.2 (nuttcp -V)
# output: stdout+stderr combined (> udp_R50m_T3_i1_v_fparse.out 2>&1), stdout a file, not a TTY
# server (started before, on 127.0.0.1, killed by PID after): nuttcp -S --nofork -P 15700
timeout 30 nuttcp -u -R 50m -l 1400 -T 3 -i 1 -v -fparse -P 15700 -p 15701 127.0.0.1 > udp_R50m_T3_i1_v_fparse.out 2>&1
