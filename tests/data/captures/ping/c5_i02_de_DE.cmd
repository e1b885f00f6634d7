# ping 127.0.0.1 under LC_ALL=de_DE.UTF-8 (a decimal-comma locale)
# captured: 2026-11-24T17:36:27Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c5_i02_de_DE.out 2>&1), stdout a file, not a TTY
# notes: iputils 20221126 prints times as integers with a literal '.' (%ld.%03ld) and switches to the C locale around the %g of the loss percentage, so no decimal comma appears; NLS: no, so no translated words
# setup: localedef -i de_DE -f UTF-8 /tmp/pblocale/de_DE.UTF-8 (likewise fr_FR, ru_RU; no system-wide install). /proc/PID/maps of such a ping showed /tmp/pblocale/de_DE.UTF-8/LC_NUMERIC mapped: the locale was loaded
LOCPATH=/tmp/pblocale LC_ALL=de_DE.UTF-8 timeout 20 ping -c 5 -i 0.2 127.0.0.1 > c5_i02_de_DE.out 2>&1
