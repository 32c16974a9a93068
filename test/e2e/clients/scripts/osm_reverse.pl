#!/usr/bin/perl
# One reverse geocode with Geo::Coder::OSM (Debian libgeo-coder-osm-perl), pointed at a drop-in host through the
# module's documented %SOURCES package variable. Usage: osm_reverse.pl BASE_URL LAT LON [KEY]; KEY goes in the
# module's own extra-parameter hash (reverse_geocode(lat => .., lon => .., key => ..)). Prints one JSON line:
# {"ok":1,"address":{...}} or {"ok":0,"status":<HTTP status>,"body":<decoded body or text>} (the module returns
# nothing on failure and keeps the HTTP::Response in $geocoder->response).
use strict;
use warnings;
use Geo::Coder::OSM;
use JSON::PP;

my ($base, $lat, $lon, $key) = @ARGV;
$Geo::Coder::OSM::SOURCES{geogate} = $base;
my $geocoder = Geo::Coder::OSM->new(sources => 'geogate');
my $place = $geocoder->reverse_geocode(lat => $lat, lon => $lon, (defined $key ? (key => $key) : ()));
my $json = JSON::PP->new->canonical;
if ($place) {
    print $json->encode({ ok => 1, address => $place->{address}, display_name => $place->{display_name} }), "\n";
} else {
    my $res = $geocoder->response;
    my $body = eval { $json->decode($res->decoded_content) } // $res->decoded_content;
    print $json->encode({ ok => 0, status => $res->code, body => $body }), "\n";
}
