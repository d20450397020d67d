"""Python the run_npu scripts of several test files share, as text to prefix to a script (the scripts
run in the simulator's process, not the test's); indented as the scripts are, for run_npu's dedent."""

# refused_by_name(calls): each (call, word) fails, at the call or at the next synchronisation (a
# kernel's fault), with an error naming `word` — the argument the page or the documentation refuses
# (a list of words: naming each).
REFUSED_BY_NAME = """
    import ctypes

    def recent_error():
        # libascendcl's message of this thread's last failure: torch_npu raises a synchronisation's
        # failure with its status alone, and logs the message beside.
        library = ctypes.CDLL("libascendcl.so")
        library.aclGetRecentErrMsg.restype = ctypes.c_char_p
        return (library.aclGetRecentErrMsg() or b"").decode(errors="replace")

    def refused_by_name(calls):
        # A phase-1 refusal raises with the simulator's message; what the simulator does not compute
        # (561003) fails on the stream, and torch_npu raises at the synchronisation with the status.
        for run, word in calls:
            try:
                run()
                torch.npu.synchronize()
            except RuntimeError as error:
                said = str(error) + (recent_error() if "561003" in str(error) else "")
                assert all(w in said for w in ([word] if isinstance(word, str) else word)), (word, error)
            else:
                raise AssertionError(f"{word}: not refused")
"""
