"builtin.module"() ({
  "builtin.module"() ({}) : () -> ()
  "builtin.module"() ({
  }) {sym_name = "named"} : () -> ()
}) : () -> ()
