from specguard.cli import main

raise SystemExit(main())
