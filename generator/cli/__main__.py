"""`python -m generator.cli`: the same as the `atlas` command."""

import sys

from generator.cli import main

sys.exit(main())
