"""`make soak`: python -m tests.soak (SOAK_SECONDS, SOAK_CLIENTS; see tests/soak/soak.py)."""

import sys

from tests.soak.soak import main

sys.exit(main())
