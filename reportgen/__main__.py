from reportgen.cli import command

command()
