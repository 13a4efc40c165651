from rewind.cli import main

raise SystemExit(main())
