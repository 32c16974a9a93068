#!/usr/bin/perl
# One lookup with Geo::Coder::Googlev3 (Debian libgeo-coder-googlev3-perl). The module has no base-URL option
# (it builds http://maps.google.com/maps/api/geocode/json, Googlev3.pm geocode_url) and only forward geocoding
# (geocode(location => ...)); its LWP agent honours http_proxy (env_proxy => 1), which the test points at a forward
# proxy that maps maps.google.com to the drop-in host. Usage: googlev3_geocode.pl LOCATION [KEY].
# Prints {"ok":1,"results":[...]} or {"ok":0,"croak":<the module's croak message>}.
use strict;
use warnings;
use Geo::Coder::Googlev3;
use JSON::PP;

my ($location, $key) = @ARGV;
my $geocoder = Geo::Coder::Googlev3->new(defined $key ? (key => $key) : ());
my @results = eval { $geocoder->geocode(location => $location) };
my $json = JSON::PP->new->canonical;
if ($@) {
    (my $croak = $@) =~ s/ at \S+ line \d+\.?\n?\z//;
    print $json->encode({ ok => 0, croak => $croak }), "\n";
} else {
    print $json->encode({ ok => 1, results => \@results }), "\n";
}
