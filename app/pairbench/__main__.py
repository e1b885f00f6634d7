"""``python -m pairbench``: the same entry as the ``pairbench`` command (``main.main``)."""

import sys

from pairbench.main import main

sys.exit(main())
