"""``python -m pairbench``."""

import sys

from pairbench.main import main

sys.exit(main())
