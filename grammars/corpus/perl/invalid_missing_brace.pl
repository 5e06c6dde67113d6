use strict;
sub f {
    my $x = shift;
    if ($x > 1) {
        return $x;
}
