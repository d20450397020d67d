"""`make corpus`: every API of a directory of pages, parsed, generated, compiled and called.

    python -m gen.corpus DIR [--jobs N] [--build build/corpus] [--limit N]

The run (`gen.corpus.run`), each step recorded per API in `<report dir>/corpus-report.json` and
`corpus-report.md`:

1. generate: the pipeline of `make generate` (gen.pipeline: discover, parse in N processes,
   merge each op README into its page, semantics, select, emit) into `<build>/generated`;
2. compile the simulator and the extension, leaving out the APIs a compile error is blamed on
   and building again (`gen.corpus.build`);
3. call every compiled API once on the simulator with the valid call its generated test suite
   plans (`gen.corpus.calls`), in worker processes that survive a crash (`gen.corpus.workers`).
   Phase 1 passes when it returns 0 or a status of the page's error table. Phase 2 of the same
   call is "ok", "not simulated" (561003) or the status it returned, and where it computed, its
   results are compared with the semantics file's golden (PyTorch on the same inputs, CANN's
   tolerances, as the generated suites compare);
4. report (`gen.corpus.records`, `gen.corpus.report`), ending with the demand table: the aclnn
   APIs the installed torch_npu references (`gen.corpus.demand`), how far each gets.
"""
