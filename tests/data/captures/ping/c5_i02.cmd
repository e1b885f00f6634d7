# ping 127.0.0.1, default output
# captured: 2026-11-24T17:36:03Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c5_i02.out 2>&1), stdout a file, not a TTY
timeout 20 ping -c 5 -i 0.2 127.0.0.1 > c5_i02.out 2>&1
