%0 = loop.constant true
%1 = loop.constant 0 : i1
%2 = "loop.constant"() {value = 1 : i1} : () -> i1
%3 = loop.constant 1 : i8
