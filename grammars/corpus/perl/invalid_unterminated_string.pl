use strict;
my $s = "never closed;
print $s;
