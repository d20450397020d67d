"""Python the run_npu scripts of several test files share, as text to prefix to a script (the scripts
run in the simulator's process, not the test's); indented as the scripts are, for run_npu's dedent."""

# refused_by_name(calls): each (call, word) fails, at the call or at the next synchronisation (a
# kernel's fault), with an error naming `word` — the argument the page or the documentation refuses.
REFUSED_BY_NAME = """
    def refused_by_name(calls):
        for run, word in calls:
            try:
                run()
                torch.npu.synchronize()
            except RuntimeError as error:
                assert word in str(error), (word, error)
            else:
                raise AssertionError(f"{word}: not refused")
"""
