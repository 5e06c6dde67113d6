use strict;
use warnings;

my @nums = map { $_ * 2 } grep { $_ % 2 } 1 .. 10;
my $total = 0;
$total += $_ foreach @nums;

my $ref = { name => 'Ada', langs => [qw(perl c)] };
print "name: $ref->{name}, first: $ref->{langs}[0]\n";

my $text = "hello world";
(my $copy = $text) =~ s/world/perl/;
unless ($copy eq $text) {
    print "changed\n";
}

eval { die "oops\n" };
warn "caught: $@" if $@;

my $sub = sub { return scalar @_ };
print $sub->(1, 2, 3), "\n";
