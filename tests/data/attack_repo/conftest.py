import attack

RESULT = attack.run("tests")
