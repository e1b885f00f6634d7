# ping -6 ::1 with -D timestamps
# captured: 2026-11-24T17:36:11Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c5_i02_D_ipv6.out 2>&1), stdout a file, not a TTY
timeout 20 ping -6 -D -c 5 -i 0.2 ::1 > c5_i02_D_ipv6.out 2>&1
