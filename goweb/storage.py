"""The production storage of static files: hashed names, gzip copies, and ES module imports
rewritten to the hashed names (the board pages' JavaScript is native modules, loaded by import)."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class CompressedStaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage that also rewrites ``import ... from "./x.js"``,
    so that a new deployment's modules never mix with a browser's cached old ones."""

    support_js_module_import_aggregation = True
