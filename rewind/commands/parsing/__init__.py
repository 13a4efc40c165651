"""What the commands read from the command line: the argparse grammar (one builder per group of
commands), the hook path's argparse-free parser, times people type, and which session a
reading command reads.
"""
