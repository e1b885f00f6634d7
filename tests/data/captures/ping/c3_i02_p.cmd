# ping 127.0.0.1 with a pattern (-p ff): PATTERN line
# captured: 2026-11-24T17:36:15Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c3_i02_p.out 2>&1), stdout a file, not a TTY
timeout 20 ping -p ff -c 3 -i 0.2 127.0.0.1 > c3_i02_p.out 2>&1
