package Counter;

use strict;
use warnings;

our $VERSION = '0.01';

sub new {
    my ($class, %args) = @_;
    my $self = { count => $args{start} // 0 };
    return bless $self, $class;
}

sub increment {
    my $self = shift;
    $self->{count} += @_ ? shift : 1;
    return $self;
}

sub value { $_[0]->{count} }

1;
