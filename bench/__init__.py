"""`make bench`: how fast the generator, the build and the bindings are, against their floors.

    .venv/bin/python -m bench [--quick] [--full] [--sections generation,build,calls,kernels]

Each section runs in its own subprocess (`python -m bench.<section>`), so that its peak memory
(ru_maxrss) is its own and a crash of one does not lose the others. Inside a section, the things
compared run in the same process, interleaved round by round, so that their ratios hold on a
noisy shared machine. Results go to bench/results.json and a table to stdout.
"""
