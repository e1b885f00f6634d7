# fio normal output, two named jobs: reader (randread) and writer (sequential write)
# captured: 2026-11-24T18:01:20Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# command (stdout+stderr combined into normal_two_jobs.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/normal_two_jobs --size=64m --runtime=3 --time_based --direct=1 --ioengine=libaio --bs=4k --iodepth=16 --name=reader --rw=randread --name=writer --rw=write --output-format=normal > tests/data/captures/fio/normal_two_jobs.out 2>&1
