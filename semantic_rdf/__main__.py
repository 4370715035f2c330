import sys

from semantic_rdf.cli import main

sys.exit(main())
