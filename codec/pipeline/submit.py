"""Entry point for ``spark-submit`` (absolute imports only, so it runs as a script):

    spark-submit --master spark://host:7077 "$(python -c 'import codec.pipeline.submit as s; print(s.__file__)')" \
        INPUT... --out DIR [--ship-code]

The driver needs the codec installed (``pip install 'rebalance-codec[spark]'``); executors need it too,
or ``--ship-code`` (zips the codec and construct and adds them with ``SparkContext.addPyFile``).
"""

import sys

from codec.pipeline.command import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
