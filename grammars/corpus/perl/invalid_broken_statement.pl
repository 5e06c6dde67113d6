use strict;
my $x = (1 + 2;
print $x;
