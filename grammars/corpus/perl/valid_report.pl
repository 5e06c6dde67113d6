#!/usr/bin/perl
use strict;
use warnings;

my %count;
my @files = @ARGV ? @ARGV : ('-');

for my $file (@files) {
    open(my $fh, '<', $file) or die "cannot open $file: $!";
    while (my $line = <$fh>) {
        chomp $line;
        next if $line =~ /^\s*#/;
        $count{$_}++ for split /\s+/, $line;
    }
    close $fh;
}

foreach my $word (sort { $count{$b} <=> $count{$a} } keys %count) {
    printf "%-20s %d\n", $word, $count{$word};
}
