"""Judging: each claim's verdict on its measurement, counted, explained and checked against its document.

judge decides every verdict; verdicts names them; runs hands a build's runs to the judge and
carries the results on; tally counts them; prose and story fill the sentences from them;
documents looks every quote up in its text; drift compares two builds' verdicts. The claims
themselves are data in reportgen.claims. Judging imports the experiments' measurements and
nothing of rendering or publishing.
"""
