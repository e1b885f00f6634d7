# fio terse version 2 with --status-interval=1, two named jobs (reader, writer)
# captured: 2026-11-24T18:02:15Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# command (stdout+stderr combined into terse_v2_si1_two_jobs.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/terse_v2_si1_two_jobs --size=64m --runtime=3 --time_based --direct=1 --ioengine=libaio --bs=4k --iodepth=16 --name=reader --rw=randread --name=writer --rw=write --output-format=terse --terse-version=2 --status-interval=1 > tests/data/captures/fio/terse_v2_si1_two_jobs.out 2>&1
