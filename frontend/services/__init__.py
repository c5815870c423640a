"""Logic behind the views and consumers, kept out of them so it can be tested directly."""
