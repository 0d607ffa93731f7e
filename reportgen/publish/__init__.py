"""Publishing: what a build writes and keeps, knowing nothing of what the files hold.

outputs replaces the output folder's files as one set (lock: one build at a time per
folder); cache keeps results, figures and PDFs keyed on everything they depend on (cachekey:
its secret); provenance says where, when and with what a report was built.
"""
