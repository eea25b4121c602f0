%0 = loop.constant 2 : i1
