"""What a memory is made of: fact files, slugs, periods, the rules schema and its graph. Pure: no disk writes, no clock."""
