"""The parser's third layer: the facts of a `Document` into IR pieces, one kind per module
(products, prototypes, parameter entries, params, errors, rules, relations, prose, dtype
combinations, the example call, the vocabulary of closed sets). The page builders
(gen/parse/api_page.py, readme.py) assemble them into a `Page`."""
